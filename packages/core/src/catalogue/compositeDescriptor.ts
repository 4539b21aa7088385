/** What a composite operation is (catalogue/composites.ts): its variants, its inputs, its steps. */
import type { Effect, FieldDescriptor, ResourceKey } from './types';

/** One choice of a composite's variant field, and the descriptor that does its main call. */
export interface CompositeVariant {
	value: string;
	name: string;
	description: string;
	/** `resource:operation` of the endpoint descriptor this variant runs. */
	operation: string;
}

/** A composite's variant input: its name, and its choices, the first the default. */
export interface CompositeVariants {
	name: string;
	displayName: string;
	default: string;
	options: readonly CompositeVariant[];
}

export interface CompositeDescriptor {
	kind: 'composite';
	resource: ResourceKey;
	operation: string;
	name: string;
	action: string;
	description: string;
	effect: Effect;
	/** The input that picks the variant; its first option is the default. None: one way only (Get Conversation). */
	variants?: CompositeVariants;
	/** The variants' own fields, each once, with the variants that use it (addressing fields first). */
	fields: ReadonlyArray<{ field: FieldDescriptor; variants: readonly string[] }>;
	/** Inputs the composite adds to every variant, with their defaults. */
	options: readonly FieldDescriptor[];
	/** The calls it makes, in order (`resource:operation` ids or a plain description), for documentation. */
	steps: readonly string[];
	/** What a run returns, in the words of a tool description (what a model reads before calling it). */
	returns: string;
	/** A send whose answer was lost is looked up in the chat and sent again only when proven absent. */
	recoversLostSend: boolean;
	/**
	 * Answered through links in the sent message that resume a paused run: the platform hands the
	 * handler its resume URLs, pauses, and serves the pages the links open. Only a platform that can
	 * (n8n's action node) offers it; it is left out of `COMPOSITES` and `CATALOGUE`, which every
	 * surface runs on its own (Node-RED, the MCP server, the client, OpenAPI).
	 */
	resumedByLink?: boolean;
}

/** A composite that sends a message: Send To (its variant) says where it goes. */
export type SendingComposite = CompositeDescriptor & { variants: CompositeVariants };
