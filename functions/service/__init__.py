"""Service layer shared by every Lambda handler, in four layers, each importing only those below:
room/ (RoomService, the pipeline, the commands), features/, protocol/ (the wire), infra/."""
