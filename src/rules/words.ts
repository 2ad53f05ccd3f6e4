/** A count with its noun, "1 task" or "3 tasks": the card and its Markdown read as prose, not as "task(s)". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The verb after a count: "1 task was", "2 tasks were". */
export const was = (n: number): string => (n === 1 ? 'was' : 'were');

/** The possessive after a count: "1 task … its ttl", "2 tasks … their ttl". */
export const its = (n: number): string => (n === 1 ? 'its' : 'their');
