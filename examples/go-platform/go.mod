module paycore/examples/go-platform

go 1.26.0

require paycore/sdk/go v0.0.0

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/oapi-codegen/runtime v1.9.0 // indirect
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace paycore/sdk/go => ../../sdk/go
