/** Scripts, not declaration files or tests. */
export declare const isDefinitionFile: (name: string) => boolean;
export declare const STEP_FILE: RegExp;
export declare const COMPILED_FROM: string;
/** The folder to load definitions or steps from (a setting's, or the compiled copies of it). */
export declare function folderToLoad(configured: string | undefined, builtin: string): string;
