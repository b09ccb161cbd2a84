import { main } from './main.ts';

const code = await main(process.argv.slice(2));
if (code !== 0 || !['serve'].includes(process.argv[2] ?? '')) process.exitCode = code;
