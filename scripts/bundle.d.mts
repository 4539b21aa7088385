import type { BuildResult, Plugin } from 'esbuild';

/** See bundle.mjs. */
export function bundleForNode(options: {
	entry: string;
	outfile: string;
	external?: string[];
	plugins?: Plugin[];
	format?: 'cjs' | 'esm';
}): Promise<BuildResult>;
