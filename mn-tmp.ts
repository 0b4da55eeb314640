import { startEmulator } from '/work/main/local/emulator.js';
import { benchMultiNode } from '/work/main/bench/multiNode.js';
process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
const e = await startEmulator();
try { await benchMultiNode(e.endpoint, Number(process.argv[2]), Number(process.argv[3])); } finally { await e.stop(); }
