"""The seed's three stage formats: groups, best-of-three knockouts, the final round robin."""
