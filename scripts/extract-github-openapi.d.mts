// Types of extract-github-openapi.mjs, for the test that re-extracts the subset.
export declare const GITHUB_OPERATIONS: string[];
export declare const SUBSET_FILE: string;
export declare function loadPublished(): { version: string; spec: unknown };
export declare function extractSubset(spec: unknown, version: string): Record<string, unknown>;
export declare function formatSubset(subset: Record<string, unknown>): string;
