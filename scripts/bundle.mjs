// How every package that ships the core inside it is bundled: one esbuild setting for all of them, so the n8n
// nodes, the Node-RED nodes, the client and any package added later run on the same Node versions.
import { build } from 'esbuild';

/**
 * Bundles `entry` and what it imports (the core included) into one CommonJS file for Node 20 and later;
 * `external` names the packages that stay imports (a package's dependencies and peers). `format: 'esm'` is for a
 * package whose peers are ES modules only (the Chat SDK's `chat`), which a CommonJS file cannot require.
 * @param {{ entry: string, outfile: string, external?: string[], plugins?: import('esbuild').Plugin[], format?: 'cjs' | 'esm' }} options
 */
export function bundleForNode({ entry, outfile, external = [], plugins = [], format = 'cjs' }) {
	return build({
		entryPoints: [entry],
		outfile,
		bundle: true,
		platform: 'node',
		format,
		target: 'node20',
		logLevel: 'warning',
		legalComments: 'none',
		external,
		plugins,
	});
}
