import { existsSync, readdirSync } from 'node:fs';
import { runCommand } from '../../src/local/embedded/run-command.ts';
import { messageOf } from '../../src/common/errors/caught.ts';

/** Debian's Chromium, which the browser tests (the dashboard, the consent page) drive through playwright-core. */
export const chromiumPath = '/usr/bin/chromium';

/** What the closed test network needs: no GPU, no QUIC, and none of Chromium's own calls home. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const aptListsDir = '/var/lib/apt/lists';
// Lines of apt's output worth showing while it works: what it fetches, unpacks and sets up, and its errors.
const progressLine = /^(Need to get|Get:\d|Fetched|Unpacking|Setting up|E:|W:)/;

/**
 * Installs Chromium from Debian packages when it is missing (the browser tests need it; playwright-core downloads
 * no browser). A no-op when it is there. Package lists are fetched only when there are none, or when they are too
 * old to find the package.
 */
export async function ensureChromium(log: (message: string) => void): Promise<void> {
  if (existsSync(chromiumPath)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`Chromium is missing (${chromiumPath}) and installing it needs root: run "apt-get install chromium" as root.`);
  }
  log('Chromium is missing: installing it from Debian packages (once)');
  const apt = (args: string[]) =>
    runCommand('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      onLine: (line) => {
        if (progressLine.test(line)) log(`apt: ${line}`);
      },
    });
  const install = () => apt(['install', '-y', '--no-install-recommends', 'chromium']);
  const update = () => apt(['update']);

  try {
    const justUpdated = !hasPackageLists();
    if (justUpdated) await update();
    try {
      await install();
    } catch (error) {
      if (justUpdated) throw error;
      // Stale lists name package versions the mirror no longer has: refresh them and try once more.
      log('apt could not install Chromium with the package lists it has: updating them and trying again');
      await update();
      await install();
    }
  } catch (error) {
    const reason = messageOf(error);
    throw new Error(`Could not install Chromium from Debian packages (apt-get install chromium):\n${reason}`, { cause: error });
  }
  if (!existsSync(chromiumPath)) throw new Error(`apt-get installed chromium, but ${chromiumPath} is still missing.`);
  log('Chromium installed');
}

function hasPackageLists(): boolean {
  return existsSync(aptListsDir) && readdirSync(aptListsDir).some((name) => name.includes('_Packages'));
}
