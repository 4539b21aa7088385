/**
 * A local npm registry (Verdaccio, from npm) on loopback, standing in for registry.npmjs.org: our packages
 * (`@chat-messaging/*`) can only come from it (no uplink for that scope, so a name missing here fails
 * instead of being fetched from npm); any other package — axios and its dependencies, which the Node-RED
 * package needs — is proxied to the registry npm is configured with (npm's, the only network CI has).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort, sleep } from '../node-red/e2e-support';

export interface LocalRegistry {
	url: string;
	/** Environment for npm commands that publish to it (its URL and a user's token in a userconfig file). */
	npmEnv: NodeJS.ProcessEnv;
	stop(): Promise<void>;
	output(): string;
}

/**
 * Starts Verdaccio (`verdaccioBin`, from the runtimes cache: WITH_VERDACCIO=1 test/e2e/runtimes.sh) with `node` (Verdaccio 6 needs
 * Node >= 22: the tests' Node 24).
 */
export async function startRegistry(workDir: string, node: string, verdaccioBin: string): Promise<LocalRegistry> {
	const dir = join(workDir, 'registry');
	mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim() || 'https://registry.npmjs.org/';
	const config = [
		`storage: ${JSON.stringify(join(dir, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(join(dir, 'htpasswd'))}`,
		'    max_users: 10',
		'uplinks:',
		'  npmjs:',
		`    url: ${JSON.stringify(upstream)}`,
		'    timeout: 60s',
		'packages:',
		"  '@chat-messaging/*':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    proxy: npmjs',
		'web:',
		'  enable: false',
		'max_body_size: 100mb',
		'log: { type: stdout, format: pretty, level: warn }',
		'',
	].join('\n');
	const configFile = join(dir, 'config.yaml');
	writeFileSync(configFile, config);
	const child: ChildProcess = spawn(node, [verdaccioBin, '--config', configFile, '--listen', `127.0.0.1:${port}`], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	process.on('exit', () => child.kill('SIGKILL'));
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGTERM');
			await Promise.race([exited, sleep(5000)]);
			child.kill('SIGKILL');
		}
	};
	const deadline = Date.now() + 60_000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`Verdaccio exited during start:\n${output}`);
		try {
			if ((await fetch(`${url}/-/ping`)).ok) break;
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`Verdaccio did not answer within 60 s:\n${output}`);
		}
		await sleep(200);
	}
	// A publisher account, the way `npm adduser` makes one: the registry answers with its token.
	const added = await fetch(`${url}/-/user/org.couchdb.user:publisher`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ name: 'publisher', password: 'publisher-e2e-password', email: 'publisher@example.com', type: 'user' }),
	});
	const { token } = (await added.json()) as { token?: string };
	if (!added.ok || !token) throw new Error(`Verdaccio refused the publisher account (${added.status})`);
	const userconfig = join(dir, 'npmrc');
	writeFileSync(userconfig, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`);
	return {
		url,
		npmEnv: { ...process.env, npm_config_registry: `${url}/`, NPM_CONFIG_USERCONFIG: userconfig, npm_config_ignore_scripts: 'true' },
		stop,
		output: () => output,
	};
}

/** `npm view <name>@<version> version` against the registry: the version, or undefined when it does not hold it. */
export function viewVersion(registry: LocalRegistry, name: string, version: string): string | undefined {
	try {
		const out = execFileSync('npm', ['view', `${name}@${version}`, 'version', '--json'], {
			env: registry.npmEnv,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		return out ? (JSON.parse(out) as string) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The next patch version of a packed package, packed again: the tarball unpacked, its package.json's version
 * set, a CHANGELOG.md entry added (what `npm run version-packages` does to a release), and `npm pack`ed.
 */
export function repackAsNextVersion(tarball: string, workDir: string): { tarball: string; version: string } {
	const dir = join(workDir, `repack-${Date.now()}-${Math.random().toString(16).slice(2)}`);
	mkdirSync(dir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', dir]);
	const packageDir = join(dir, 'package');
	const manifestFile = join(packageDir, 'package.json');
	const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name: string; version: string };
	const [major, minor, patch] = manifest.version.split(/[.+-]/).map(Number);
	const version = `${major}.${minor}.${patch + 1}`;
	writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
	const changelogFile = join(packageDir, 'CHANGELOG.md');
	const changelog = readFileSync(changelogFile, 'utf8');
	const [title, ...rest] = changelog.split('\n');
	writeFileSync(
		changelogFile,
		[title, '', `## ${version}`, '', '- Registry end-to-end test: the update users install.', ...rest].join('\n'),
	);
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
			cwd: packageDir,
			encoding: 'utf8',
			env: { ...process.env, npm_config_ignore_scripts: 'true' },
		}),
	) as Array<{ filename: string }>;
	return { tarball: join(dir, packed[0].filename), version };
}
