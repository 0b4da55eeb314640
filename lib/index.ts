export * from './config.js';
export * from './defaults.js';
export * from './monitor.js';
export * from './props.js';
export * from './stack.js';
