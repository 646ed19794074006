"""Chat: the transformers profile above the engine — inputs, model files, capabilities, schemas, batches."""
