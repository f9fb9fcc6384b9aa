"""The d100 rule system."""
