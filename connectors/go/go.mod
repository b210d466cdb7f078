module foyer.local/connectors

go 1.19
