"""Files a user keeps: model files (npz + JSON, never pickle), their history records, atomic writes."""
