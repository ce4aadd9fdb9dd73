// priorart for CommonJS (`require("priorart")`, package.json's "require"
// condition): the ES module index.js, loaded by require(), which Node runs
// from 20.19 and 22.12 on for modules without top-level await (this
// package has none). Older Node refuses it; the error then says what to do.
"use strict";
try {
  module.exports = require("./index.js");
} catch (error) {
  if (error && error.code === "ERR_REQUIRE_ESM") {
    throw new Error(
      `priorart is an ES module: load it with import() (or await import("priorart")), or use Node 20.19 or later, whose require() loads ES modules (this is Node ${process.version})`,
      { cause: error },
    );
  }
  throw error;
}
