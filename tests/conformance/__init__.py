"""The conformance corpus: every kernel of the TIRx documentation as a `.tx` file
(see tests/conformance/README.md and docs/conformance.md)."""
