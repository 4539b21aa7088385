/**
 * The client's typings are text (scripts/types.ts writes dist/index.d.ts). Its method inputs come from the
 * descriptors, but the shapes around them — the error, the transport, files, send and list options — are
 * written out there by hand and must stay the core's and the client's own types. The TypeScript compiler
 * checks that each one is identical to its source, so a field added, removed or retyped on one side fails here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import * as ts from 'typescript';

import { clientTypes } from '../scripts/types';

const root = resolve(__dirname, '..', '..', '..');
const source = (path: string) => JSON.stringify(join(root, path).replace(/\.ts$/, ''));

/** Each hand-written shape of the typings beside the type it copies; `Same` fails to compile when they differ. */
const CHECKS = `import type * as Typings from './index';
import type * as Core from ${source('packages/core/src/index.ts')};
import type * as Client from ${source('packages/client/src/index.ts')};

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
type Fields<T> = { [K in keyof T as K extends keyof Error ? never : T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };

export type Checks = [
	// details is the class's getter of the same fields as one object.
	Holds<Same<Fields<Typings.ChatMessagingError>, Omit<Fields<Core.ChatMessagingError>, 'details'>>>,
	Holds<Same<Fields<Typings.ChatMessagingError>, Readonly<Core.ChatMessagingErrorDetails>>>,
	Holds<Same<Typings.ValidationItem, Core.ValidationItem>>,
	Holds<Same<Typings.BinaryInput, Core.BinaryInput>>,
	Holds<Same<Typings.DownloadedFile, Core.DownloadedFile>>,
	Holds<Same<Typings.TransportRequest, Core.TransportRequest>>,
	Holds<Same<Typings.TransportResponse, Core.TransportResponse>>,
	Holds<Same<Typings.Transport, Core.Transport>>,
	Holds<Same<Typings.Timing, Core.Timing>>,
	Holds<Same<Typings.ListOptions, Core.RunOptions>>,
	Holds<Same<Typings.SendOptions, Client.SendOptions>>,
	Holds<Same<Typings.ClientOptions, Client.ClientOptions>>,
	Holds<Same<typeof Typings.fetchTransport, typeof Client.fetchTransport>>,
	Holds<Same<typeof Typings.realTiming, typeof Client.realTiming>>,
];
`;

/** The last program: the next one reuses its parse of the core's and the client's sources. */
let previous: ts.Program | undefined;

/** The compiler's complaints about the typings and the checks (none: they agree). */
function drift(typings: string): string[] {
	const dir = mkdtempSync(join(tmpdir(), 'client-typings-'));
	try {
		writeFileSync(join(dir, 'index.d.ts'), typings);
		writeFileSync(join(dir, 'checks.ts'), CHECKS);
		const program = ts.createProgram(
			[join(dir, 'checks.ts')],
			{
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				target: ts.ScriptTarget.ES2022,
				module: ts.ModuleKind.CommonJS,
				moduleResolution: ts.ModuleResolutionKind.Node10,
				lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
				types: ['node'],
				typeRoots: [join(root, 'node_modules', '@types')],
			},
			undefined,
			previous,
		);
		previous = program;
		return ts
			.getPreEmitDiagnostics(program)
			.filter((diagnostic) => diagnostic.file?.fileName.startsWith(dir) ?? true)
			.map((diagnostic) => {
				const where =
					diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
				const line = where ? diagnostic.file!.text.split('\n')[where.line]!.trim() : '';
				return `${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
			});
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

it('the typings written by hand are the core and client types they copy', () => {
	expect(drift(clientTypes())).toEqual([]);
});

it('a copy that drifted from its source fails to compile, naming the shape', () => {
	const typings = clientTypes();
	const withoutDetail = typings.replace('\treadonly serviceBody?: boolean;\n', '');
	expect(withoutDetail).not.toBe(typings);
	expect(drift(withoutDetail).join('\n')).toMatch(/Typings\.ChatMessagingError/);
	const fewerTargets = typings.replace("waitFor?: 'sent' | 'delivered' | 'read';", "waitFor?: 'sent' | 'delivered';");
	expect(fewerTargets).not.toBe(typings);
	expect(drift(fewerTargets).join('\n')).toMatch(/Typings\.SendOptions/);
});
