"""Core: the errors, the limits and render state, and the step budget. Imports nothing of the package."""
