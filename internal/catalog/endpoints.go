package catalog

// EndpointKind is what one end of a transaction is (its source or destination kind).
type EndpointKind string

// Endpoint kinds.
const (
	EndpointInternal        EndpointKind = "INTERNAL"         // one of the platform's internal accounts
	EndpointExternal        EndpointKind = "EXTERNAL"         // an external account
	EndpointRealtimeFunding EndpointKind = "REALTIME_FUNDING" // money from outside any account (sandbox funding)
	EndpointUma             EndpointKind = "UMA_ADDRESS"      // a UMA address
)
