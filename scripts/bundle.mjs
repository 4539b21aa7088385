// How every package that ships the core inside it is bundled: one esbuild setting for all of them, so the n8n
// nodes, the Node-RED nodes, the client and any package added later run on the same Node versions.
import { build } from 'esbuild';

/**
 * Bundles `entry` and what it imports (the core included) into one CommonJS file for Node 20 and later;
 * `external` names the packages that stay imports (a package's dependencies and peers).
 * @param {{ entry: string, outfile: string, external?: string[], plugins?: import('esbuild').Plugin[] }} options
 */
export function bundleForNode({ entry, outfile, external = [], plugins = [] }) {
	return build({
		entryPoints: [entry],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		logLevel: 'warning',
		legalComments: 'none',
		external,
		plugins,
	});
}
