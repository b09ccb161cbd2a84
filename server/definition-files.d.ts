/** Scripts, not declaration files or tests. */
export declare const isDefinitionFile: (name: string) => boolean;
