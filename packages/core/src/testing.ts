/**
 * Test helpers for agents built on agentfx.
 *
 * @since 0.1.0
 */
export {}
