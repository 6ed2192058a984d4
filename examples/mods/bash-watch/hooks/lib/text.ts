// A namespace (SPEC §6: namespaces are transformed): how the mod quotes and
// words what it found.

export namespace Text {
  export const PREFIX = 'bash-watch';

  export function quote(text: string): string {
    return JSON.stringify(text);
  }

  export function reason(detail: string): string {
    return `${PREFIX}: ${detail}`;
  }

  export namespace Plural {
    export function characters(n: number): string {
      return n === 1 ? '1 character' : `${n} characters`;
    }
  }
}

// A namespace merged with a function: the function's properties.
export function describe(rule: { label: string }): string {
  return `${describe.open}${rule.label}${describe.close}`;
}
export namespace describe {
  export const open = '[';
  export const close = ']';
}
