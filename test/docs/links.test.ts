/**
 * Every link the documentation gives resolves: each relative link and `#anchor` in README.md, docs/*.md, the
 * packages' READMEs and .changeset/README.md names a file or folder that exists, and a heading of that file (by
 * GitHub's slug). Links into this repository on GitHub (package homepages, the n8n codex files, the credential's
 * documentation URL) are held to the same rule, since they point at the same files once published.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/chat-messaging/chat-messaging-nodes';

/** The Markdown files whose links are checked, relative to the root. */
function documentationFiles(root: string): string[] {
	const inFolder = (folder: string, pick: (name: string) => boolean) =>
		existsSync(join(root, folder))
			? readdirSync(join(root, folder))
					.filter(pick)
					.map((name) => join(folder, name))
			: [];
	return [
		'README.md',
		'.changeset/README.md',
		...inFolder('docs', (name) => name.endsWith('.md')),
		...inFolder('packages', (name) => existsSync(join(root, 'packages', name, 'README.md'))).map((folder) => join(folder, 'README.md')),
	].filter((file) => existsSync(join(root, file)));
}

/** The lines outside fenced code blocks: neither a link nor a heading in a code block is one. */
function proseLines(markdown: string): string[] {
	const lines: string[] = [];
	let fence: string | undefined;
	for (const line of markdown.split('\n')) {
		const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
		if (marker && (fence === undefined || marker.startsWith(fence))) {
			fence = fence === undefined ? marker : undefined;
			continue;
		}
		if (fence === undefined) lines.push(line);
	}
	return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function headingSlugs(markdown: string): Set<string> {
	const slugs = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of proseLines(markdown)) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
		if (heading === undefined) continue;
		const text = heading
			.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
			.replace(/<[^>]+>/g, '')
			.toLowerCase();
		const base = text
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.trim()
			.replace(/\s/g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		slugs.add(count === 0 ? base : `${base}-${count}`);
	}
	// GitHub shows a folder's README under this anchor.
	slugs.add('readme');
	return slugs;
}

/** The headings' slugs of a file, read once. */
function slugsOf(path: string, cache: Map<string, Set<string>>): Set<string> {
	let slugs = cache.get(path);
	if (!slugs) {
		slugs = headingSlugs(readFileSync(path, 'utf8'));
		cache.set(path, slugs);
	}
	return slugs;
}

/** The link targets of a Markdown text: `[text](target)` and `![alt](target)`, titles and angle brackets removed. */
function linkTargets(markdown: string): string[] {
	const targets: string[] = [];
	for (const line of proseLines(markdown)) {
		// Inline code shows a link's syntax without being a link.
		for (const match of line.replace(/(`+)[\s\S]*?\1/g, '').matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g))
			targets.push(match[1]!);
	}
	return targets;
}

/**
 * What is wrong with one link of `from` (a path relative to `root`), or undefined when it resolves. Links elsewhere on
 * the web are not checked; links into this repository on GitHub are read as paths from the root.
 */
function brokenLink(root: string, from: string, target: string, cache: Map<string, Set<string>>): string | undefined {
	let pathPart: string;
	let anchor: string | undefined;
	let base: string;
	if (target.startsWith(REPOSITORY)) {
		const rest = target.slice(REPOSITORY.length);
		const match = /^(?:\/(?:tree|blob)\/main)?(\/[^#]*)?(?:#(.*))?$/.exec(rest);
		if (!match) return `${target}: not a link to a file of the repository`;
		pathPart = (match[1] ?? '').replace(/^\//, '');
		anchor = match[2];
		base = root;
	} else if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
		return undefined;
	} else {
		const hash = target.indexOf('#');
		pathPart = hash === -1 ? target : target.slice(0, hash);
		anchor = hash === -1 ? undefined : target.slice(hash + 1);
		base = join(root, dirname(from));
	}
	let path = pathPart === '' ? (target.startsWith(REPOSITORY) ? root : join(root, from)) : resolve(base, decodeURIComponent(pathPart));
	if (relative(root, path).startsWith('..')) return `${target}: leaves the repository`;
	if (!existsSync(path)) return `${target}: ${relative(root, path)} does not exist`;
	if (anchor === undefined) return undefined;
	if (statSync(path).isDirectory()) {
		if (!existsSync(join(path, 'README.md'))) return `${target}: ${relative(root, path)} has no README.md for #${anchor}`;
		path = join(path, 'README.md');
	}
	if (!path.endsWith('.md')) return `${target}: #${anchor} in a file that is not Markdown`;
	if (!slugsOf(path, cache).has(anchor.toLowerCase())) return `${target}: ${relative(root, path)} has no heading #${anchor}`;
	return undefined;
}

/** Every broken link of the documentation under `root`, as "file: what is wrong". */
function brokenLinks(root: string): string[] {
	const cache = new Map<string, Set<string>>();
	return documentationFiles(root).flatMap((file) =>
		linkTargets(readFileSync(join(root, file), 'utf8'))
			.map((target) => brokenLink(root, file, target, cache))
			.filter((problem): problem is string => problem !== undefined)
			.map((problem) => `${file}: ${problem}`),
	);
}

/** The repository's own URLs outside Markdown: package homepages, n8n codex files, the credential's documentation. */
function publishedUrls(): Array<{ source: string; url: string }> {
	const urls: Array<{ source: string; url: string }> = [];
	for (const folder of readdirSync(join(ROOT, 'packages'))) {
		const manifest = join('packages', folder, 'package.json');
		if (!existsSync(join(ROOT, manifest))) continue;
		const { homepage } = JSON.parse(readFileSync(join(ROOT, manifest), 'utf8')) as { homepage?: string };
		if (homepage) urls.push({ source: manifest, url: homepage });
	}
	const nodes = join(ROOT, 'packages', 'n8n', 'nodes');
	for (const folder of readdirSync(nodes)) {
		for (const name of readdirSync(join(nodes, folder)).filter((file) => file.endsWith('.node.json'))) {
			const source = relative(ROOT, join(nodes, folder, name));
			for (const match of readFileSync(join(ROOT, source), 'utf8').matchAll(/"url":\s*"([^"]+)"/g)) urls.push({ source, url: match[1]! });
		}
	}
	const credentials = join(ROOT, 'packages', 'n8n', 'credentials');
	for (const name of readdirSync(credentials).filter((file) => file.endsWith('.ts'))) {
		const source = relative(ROOT, join(credentials, name));
		for (const match of readFileSync(join(ROOT, source), 'utf8').matchAll(/documentationUrl\s*=\s*'([^']+)'/g))
			urls.push({ source, url: match[1]! });
	}
	return urls;
}

test('every relative link and #anchor in README.md, docs/ and the packages’ READMEs resolves', () => {
	const files = documentationFiles(ROOT);
	expect(files).toEqual(
		expect.arrayContaining(['README.md', 'docs/architecture.md', 'packages/n8n/README.md', 'packages/node-red/README.md']),
	);
	const checked = files.flatMap((file) => linkTargets(readFileSync(join(ROOT, file), 'utf8')).filter((target) => !/^https?:/.test(target)));
	expect(checked.length).toBeGreaterThan(30);
	expect(brokenLinks(ROOT)).toEqual([]);
});

test('the repository’s URLs in package homepages, n8n codex files and the credential point at existing files and headings', () => {
	const urls = publishedUrls();
	expect(urls.map((entry) => entry.source)).toEqual(
		expect.arrayContaining(['packages/n8n/package.json', 'packages/n8n/credentials/ChatMessagingApi.credentials.ts']),
	);
	expect(urls.some((entry) => entry.source.endsWith('.node.json'))).toBe(true);
	const cache = new Map<string, Set<string>>();
	const problems = urls
		.map(({ source, url }) => (url.startsWith(REPOSITORY) ? brokenLink(ROOT, source, url, cache) : `${url}: not in ${REPOSITORY}`))
		.filter((problem) => problem !== undefined);
	expect(problems).toEqual([]);
});

test('a missing file, a missing heading and a link out of the repository are reported; code, the web and good anchors are not', () => {
	const root = mkdtempSync(join(tmpdir(), 'links-'));
	try {
		writeFileSync(
			join(root, 'README.md'),
			[
				'# Title',
				'## Update and uninstall: what happens (to `triggers`)',
				'## Examples',
				'## Examples',
				'See [the guide](docs/guide.md), [missing](docs/missing.md) and [here](#update-and-uninstall-what-happens-to-triggers).',
				'Also [again](#examples-1), [absent](#no-such-heading), [web](https://example.com/x#y), [out](../elsewhere.md).',
				'Code is no link: `[x](nowhere.md)`',
				'```md',
				'[y](nowhere-either.md)',
				'## Not a heading',
				'```',
			].join('\n'),
		);
		mkdirSync(join(root, 'docs'));
		writeFileSync(
			join(root, 'docs', 'guide.md'),
			'# Guide\n\nBack to the [README](../README.md#examples); [not here](../README.md#not-a-heading).\n',
		);
		expect(brokenLinks(root)).toEqual([
			'README.md: docs/missing.md: docs/missing.md does not exist',
			'README.md: #no-such-heading: README.md has no heading #no-such-heading',
			'README.md: ../elsewhere.md: leaves the repository',
			'docs/guide.md: ../README.md#not-a-heading: README.md has no heading #not-a-heading',
		]);
		expect(brokenLink(root, 'package.json', `${REPOSITORY}#examples`, new Map())).toBeUndefined();
		expect(brokenLink(root, 'package.json', `${REPOSITORY}/tree/main/docs#readme`, new Map())).toMatch(/has no README\.md/);
		expect(brokenLink(root, 'package.json', `${REPOSITORY}#credentials`, new Map())).toMatch(/no heading #credentials/);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});
