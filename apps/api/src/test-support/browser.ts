import chromium from '@sparticuz/chromium';
import { type Browser, chromium as playwright } from 'playwright-core';

/**
 * A real headless Chromium for browser tests, offline: the one `CHROMIUM_PATH` names (a system
 * Chromium), else the binary the npm package @sparticuz/chromium ships (unpacked to /tmp on first
 * use). Its `--single-process` flag is dropped: it is for AWS Lambda, and makes page crashes
 * take the browser down.
 */
export async function launchChromium(): Promise<Browser> {
  const systemPath = process.env.CHROMIUM_PATH;
  const executablePath = systemPath || (await chromium.executablePath());
  const args = systemPath ? ['--no-sandbox', '--disable-gpu'] : chromium.args.filter((arg) => arg !== '--single-process');
  return playwright.launch({ executablePath, args, headless: true, timeout: 30_000 });
}
