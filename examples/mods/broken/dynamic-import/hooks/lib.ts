export function verdict() {
  return { decision: 'allow' };
}
