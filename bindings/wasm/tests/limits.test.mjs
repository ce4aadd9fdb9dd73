// The limits the page reads relays under are the CLI's: one source
// (priorart_nip::limits), read here through the package and through
// `priorart check --help`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FUZZY_MIN_WORDS, fuzzyByDefault, relayAnswerLimits } from "../index.js";
import { cli } from "./helpers.mjs";

test("relayAnswerLimits are the limits priorart check reads relays under", () => {
  const limits = relayAnswerLimits();
  const help = cli(["check", "--help"]);
  const maxEvents = Number(/--max-events <N>[\s\S]*?\[default: (\d+)\]/.exec(help)?.[1]);
  assert.equal(limits.maxEvents, maxEvents);
  assert.ok(limits.maxMessageBytes > 512 * 1024, "an event of the verifier's largest size fits in a message");
  assert.ok(limits.maxBytes >= limits.maxMessageBytes);
  assert.ok(Object.isFrozen(limits));
});

test("fuzzyByDefault counts words as priorart check FILE does: FUZZY_MIN_WORDS, two letters of Chinese counting as one", () => {
  assert.equal(FUZZY_MIN_WORDS, 100);
  assert.equal(fuzzyByDefault("word ".repeat(FUZZY_MIN_WORDS - 1)), false);
  assert.equal(fuzzyByDefault("word ".repeat(FUZZY_MIN_WORDS)), true);
  // No space at all: one whitespace-separated word, but 100 words to the CLI.
  assert.equal(fuzzyByDefault("潮汐磨坊".repeat(FUZZY_MIN_WORDS / 2)), true);
  assert.equal(fuzzyByDefault("潮汐磨坊".repeat(FUZZY_MIN_WORDS / 4)), false);
});
