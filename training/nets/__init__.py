"""Where the networks are defined (networks) and saved (checkpoint)."""
