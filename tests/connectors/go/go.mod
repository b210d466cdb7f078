module connectorcheck

go 1.19

require foyer.local/connectors v0.0.0

replace foyer.local/connectors => ../../../connectors/go
