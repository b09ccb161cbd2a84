#!/usr/bin/env node
// The `mrs` command: TypeScript sources run through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/run.ts');
