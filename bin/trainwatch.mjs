#!/usr/bin/env node
// `npx trainwatch ...`: runs the TypeScript CLI through tsx, so the repo needs no build step.
import { register } from 'tsx/esm/api';

// Local Node may be 20 (Lambda runs 22): the SDK's upgrade notice is noise on every CLI call.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
