/**
 * Where the built packages are: `npm run build` lists them in dist/packages.json (name, version, folder,
 * built entry, packed tarball). Tests, benchmarks and the end-to-end runs find them here, never by
 * knowing a package's layout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');

export type PackageFolder = 'core' | 'openapi' | 'sandbox' | 'n8n' | 'node-red' | 'client' | 'mcp-server' | 'chat-adapter';

export interface BuiltPackage {
	name: string;
	version: string;
	private: boolean;
	/** The package's folder, relative to the repository root (`packages/n8n`). */
	folder: string;
	/** Built entry files, relative to the repository root. */
	entry: string[];
	/** The packed tarball (publishable packages only), relative to the repository root. */
	tarball?: string;
	/** What the tarball holds. */
	files?: string[];
}

export function builtPackages(): BuiltPackage[] {
	const list = join(REPO_ROOT, 'dist', 'packages.json');
	if (!existsSync(list)) throw new Error('dist/packages.json is missing: run `npm run build` first');
	return (JSON.parse(readFileSync(list, 'utf8')) as { packages: BuiltPackage[] }).packages;
}

/** A built package by its folder name, with absolute paths to its folder, entries and tarball. */
export function builtPackage(folder: PackageFolder): BuiltPackage & { dir: string; entryPaths: string[]; tarballPath?: string } {
	const found = builtPackages().find((candidate) => candidate.folder === `packages/${folder}`);
	if (!found) throw new Error(`dist/packages.json lists no packages/${folder}: run \`npm run build\``);
	return {
		...found,
		dir: join(REPO_ROOT, found.folder),
		entryPaths: found.entry.map((file) => join(REPO_ROOT, file)),
		tarballPath: found.tarball && join(REPO_ROOT, found.tarball),
	};
}

/** A file of a built package, loaded as its platform loads it (not the sources). */
export function requireBuilt<T>(folder: PackageFolder, file: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(join(builtPackage(folder).dir, file)) as T;
}
