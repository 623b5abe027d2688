import { defineConfig } from '@playwright/test';

// Projects: `unit` and `integration` need no browser; `e2e` drives Chromium against the demo app.
export default defineConfig({
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  projects: [
    { name: 'unit', testDir: './test/unit' },
    { name: 'integration', testDir: './test/integration', timeout: 60_000 },
  ],
});
