#!/usr/bin/env node
// Entry of the `svc-batch` bin: runs the TypeScript CLI through tsx (a runtime dependency).
import { register } from "tsx/esm/api"

register()
await import("./main.ts")
