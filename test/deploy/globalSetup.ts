import type { TestProject } from 'vitest/node';
import { type MiniStack, type MiniStackAddress, startMiniStack } from '../../local/deployed.js';

declare module 'vitest' {
  export interface ProvidedContext {
    ministack: MiniStackAddress;
  }
}

let ministack: MiniStack | undefined;

/** One MiniStack (TLS, IAM enforced, loopback) for the deployment test; stopped by its pid afterwards. */
export async function setup(project: TestProject): Promise<void> {
  ministack = await startMiniStack();
  const { endpoint, caFile, dir, pid } = ministack;
  project.provide('ministack', { endpoint, caFile, dir, pid });
}

export async function teardown(): Promise<void> {
  await ministack?.stop();
}
