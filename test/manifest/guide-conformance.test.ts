/*
 * The conformance suite on the guide's resources: examples/guide/conformance.test.ts,
 * which ships with the guide's application and is quoted by docs/guide.md step 6,
 * registers its cases when imported.
 */
import "../../examples/guide/conformance.test.ts";
