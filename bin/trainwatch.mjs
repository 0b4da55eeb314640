#!/usr/bin/env node
// `npx trainwatch ...`: runs the TypeScript CLI through tsx, so the repo needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
