// scripts/setup-vulkan.sh installs lavapipe on Debian 12 only: on any other system it
// changes nothing (no apt source added, no sudo) and says what to install there.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../minivm.js';

const { dir } = scratch('minivm-setup-');

function setup(osRelease: string): { status: number | null; stdout: string; stderr: string } {
  const file = join(dir, `os-release-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, osRelease);
  // sudo and apt-get are shadowed so that a wrong branch fails loudly instead of installing.
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin]);
  for (const tool of ['sudo', 'apt-get', 'tee']) writeFileSync(join(bin, tool), '#!/bin/sh\necho "called $0" >&2\nexit 99\n', { mode: 0o755 });
  const r = spawnSync('bash', ['scripts/setup-vulkan.sh'], {
    encoding: 'utf8',
    env: { ...process.env, MINIVM_OS_RELEASE: file, PATH: `${bin}:${process.env['PATH']}` },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('setup-vulkan.sh', () => {
  it.each([
    ['ID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n', /this is Ubuntu 22\.04\.4 LTS\.\nOn Ubuntu 24\.04 or later: sudo apt-get install mesa-vulkan-drivers/],
    ['ID=debian\nVERSION_ID="11"\nPRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\n', /Debian 11 and older, Dawn's library does not load/],
    ['ID="rhel"\nVERSION_ID="9.4"\nPRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"\n', /RHEL 9 and older/],
    ['ID=arch\nPRETTY_NAME="Arch Linux"\n', /pacman -S vulkan-swrast/],
  ])('refuses other systems and says what to install: %j', (osRelease, advice) => {
    const r = setup(osRelease);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^setup-vulkan\.sh installs lavapipe on Debian 12 only; /);
    expect(r.stderr).toMatch(advice);
    expect(r.stderr).toContain('The CPU collectors (--gc serial, parallel, none) need only npm install.');
    expect(r.stderr).not.toContain('called ');
  });
});
