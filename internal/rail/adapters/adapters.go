// Package adapters lists the payment rails this deployment has (one adapter of the rail
// port each) and builds the registry that configuration routes payments to them by.
package adapters

import (
	"paycore/internal/rail"
	"paycore/internal/sandbox/sandboxrail"
)

// All are the rails a route may name. A new rail's adapter is added here.
func All() []rail.Rail {
	return []rail.Rail{sandboxrail.Rail{}}
}

// Registry routes payments by routes (PAYCORE_RAILS) to the rails of All; an error names
// a route no rail of All serves.
func Registry(routes []rail.Route) (*rail.Registry, error) {
	return rail.NewRegistry(routes, All()...)
}

// Default is the registry of rail.DefaultRoutes: the sandbox rail for sandbox platforms,
// no rail for production.
func Default() *rail.Registry {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		panic(err) // a constant
	}
	reg, err := Registry(routes)
	if err != nil {
		panic(err) // a constant routed to a rail of All
	}
	return reg
}
