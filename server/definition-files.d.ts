/** Scripts, not declaration files or tests. */
export declare const isDefinitionFile: (name: string) => boolean;
export declare const STEP_FILE: RegExp;
