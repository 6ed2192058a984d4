// import() is refused when the module loads, whether or not the hook ever runs.
export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', async () => {
    const lib = await import('./lib.ts');
    return lib.verdict();
  });
}
