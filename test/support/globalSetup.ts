import type { TestProject } from 'vitest/node';
import { type Emulator, startEmulator } from '../../local/emulator.js';

declare module 'vitest' {
  export interface ProvidedContext {
    motoEndpoint: string;
  }
}

let emulator: Emulator | undefined;

/** One moto server for the whole test run; tests isolate themselves with unique resource names. */
export async function setup(project: TestProject): Promise<void> {
  emulator = await startEmulator();
  project.provide('motoEndpoint', emulator.endpoint);
}

export async function teardown(): Promise<void> {
  await emulator?.stop();
}
