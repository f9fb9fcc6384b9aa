"""The sr5 rule system."""
