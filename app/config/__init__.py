"""Every knob of gradlab, read from `GRADLAB_*` environment variables and validated at start-up:
where its files are (`paths`), what the machine can take (`capacity`), the database's address
(`database_url`), the settings themselves (`settings`), reading them with one line per bad value
(`loading`) and their documentation (`settings_doc`)."""
