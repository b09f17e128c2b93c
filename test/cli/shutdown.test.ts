/** Which signal stops, which exits, and which is npm's copy of one already handled. */
import { describe, expect, it } from "vitest"
import { NPM_COPY_MS, onSignalState, type SignalState } from "../../src/cli/shutdown.ts"

const actions = (signals: ReadonlyArray<readonly [NodeJS.Signals, number]>, underNpm: boolean) => {
  let state: SignalState = { copySeen: false }
  return signals.map(([signal, at]) => {
    const next = onSignalState(state, signal, at, underNpm)
    state = next.state
    return next.action
  })
}

describe("signals", () => {
  it("the first signal stops; a second one exits", () => {
    expect(actions([["SIGINT", 0], ["SIGINT", 50]], false)).toEqual(["stop", "exit"])
    expect(actions([["SIGTERM", 0], ["SIGINT", 5000]], false)).toEqual(["stop", "exit"])
  })

  it("under npm, the same signal again soon after is npm's copy of it, set aside once (a busy machine delays the copy)", () => {
    expect(actions([["SIGTERM", 0], ["SIGTERM", 700], ["SIGTERM", 900]], true)).toEqual(["stop", "copy", "exit"])
    expect(actions([["SIGINT", 0], ["SIGINT", 5]], true)).toEqual(["stop", "copy"])
  })

  it("under npm, another signal, or the same one later than npm's copy could come, exits", () => {
    expect(actions([["SIGTERM", 0], ["SIGINT", 10]], true)).toEqual(["stop", "exit"])
    expect(actions([["SIGINT", 0], ["SIGINT", NPM_COPY_MS + 1]], true)).toEqual(["stop", "exit"])
  })
})
