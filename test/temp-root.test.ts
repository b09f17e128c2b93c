import { tmpdir } from "node:os"
import { basename, dirname } from "node:path"
import { describe, expect, it } from "vitest"

describe("the test run's temporary root", () => {
  it("is where tests make their directories, so the run removes what they leave", () => {
    expect(basename(tmpdir())).toMatch(/^svc-batch-tests-/)
    expect(dirname(tmpdir())).not.toMatch(/svc-batch-tests-/)
  })
})
