/** What usernames and role names may look like; checked at the edges (CLI, /authenticate). */
export const USERNAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const ROLE_NAME = /^[a-z0-9_]{1,63}$/;

export const isUsername = (v: unknown): v is string => typeof v === 'string' && USERNAME.test(v);
export const isRoleName = (v: unknown): v is string => typeof v === 'string' && ROLE_NAME.test(v);
