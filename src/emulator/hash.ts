/** Deterministic hashing and pseudo-randomness: every emulator answer is a function of its input. */

/** FNV-1a, 32 bits. */
export const fnv1a = (text: string, seed = 0x811c9dc5): number => {
  let h = seed >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: a small, fast PRNG with 32-bit state; returns floats in [0, 1). */
export const prng = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `n` hex characters drawn from `rand`. */
export const hexId = (rand: () => number, n: number): string => {
  let s = ""
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 16).toString(16)
  return s
}
