export * from './files.js';
export * from './node.js';
export * from './parse.js';
export * from './runId.js';
export * from './schemas.js';
export * from './stacks.js';
