"""Build the multilingual interactive lesson site."""
