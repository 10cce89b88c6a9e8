"""The site deployer: a CloudFormation custom resource that publishes the web client shipped
in its own package into the site bucket (template.yaml `SiteDeployment`)."""
