"""The static_veil rule system."""
