import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Dummy credentials for the emulator; never real ones (tests must not reach AWS).
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_REGION: 'us-east-1',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'emulator',
          include: ['test/**/*.test.ts'],
          exclude: ['test/deploy/**', 'test/kube/**', 'test/**/*.kube.test.ts'],
          globalSetup: ['test/support/globalSetup.ts'],
        },
      },
      {
        // The stack deployed into MiniStack (README "Deploy, start to first alert"): its own emulator.
        extends: true,
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          globalSetup: ['test/deploy/globalSetup.ts'],
          hookTimeout: 300_000,
          testTimeout: 240_000,
        },
      },
      {
        // A real kube-apiserver + etcd (docs/KUBE_TESTING.md); globalSetup builds them once (12–16 min cold).
        extends: true,
        test: {
          name: 'kube',
          include: ['test/kube/**/*.test.ts', 'test/**/*.kube.test.ts'],
          globalSetup: ['test/kube/globalSetup.ts'],
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
