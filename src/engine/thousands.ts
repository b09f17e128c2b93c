/**
 * `12,345` for a count. Not `toLocaleString("en-US")`: its first call initialises ICU's number
 * formatter, 40 ms of a command's start-up for a comma.
 */
export const thousands = (n: number): string =>
  Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ",") : n.toLocaleString("en-US")
