/** Whether dist/ is built and newer than every TypeScript source of the package at `root`. */
export declare const buildState: (root: string) => "missing" | "stale" | "current"
